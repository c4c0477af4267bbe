Feature: GTK's widget factory
  Every GTK 3 control on three pages.

  Background:
    Given I launch 'gtk3-widget-factory'

  Scenario: The pages of the factory
    Then I should see the 'Page 1' radio
    When I click 'Page 2'
    Then I should see 'Page 2'

  Scenario: A table of names
    Then I should see 'Andrea'
    And I should see 'Otto'
    And I should see 'Redenbacher'

  Scenario: Ticking a check button
    When I click the first 'checkbutton'
    Then I should see at least 1 'checkbutton'

  Scenario: Typing into the entry
    When I clear the second 'entry'
    And I type 'factory input'
    Then I should see 'factory input'

  Scenario: The text view's words
    Then I should see 'Lorem ipsum dolor sit amet'
